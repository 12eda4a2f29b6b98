// The demo dataset's vocabulary (src/services/demo/data.ts): red-flag buckets, the category
// taxonomy with its interests, names for people and accounts, and profile links per network.
import type { Source } from '../../../schemas/common.ts'

export const RED_FLAGS = [
  ['rf-violence', 'Violence'],
  ['rf-extremism', 'Extremism'],
  ['rf-gambling', 'Gambling'],
  ['rf-drugs', 'Drugs'],
  ['rf-adult', 'Adult content'],
  ['rf-hate', 'Hate speech']
] as const

// [category name, synthetic, interests]; an interest "Name|rf-x" is a red flag of bucket rf-x.
export const TAXONOMY: [string, boolean, string[]][] = [
  ['Sport', false, ['Football', 'Basketball', 'Tennis', 'Boxing', 'Running', 'Cycling', 'Swimming', 'Formula 1', 'Street Fighting|rf-violence', 'Golf']],
  ['Music', false, ['Rock', 'Jazz', 'Hip Hop', 'Classical Music', 'Electronic Music', 'K-Pop', 'Indie', 'Metal', 'Country Music', 'Live Concerts']],
  ['Movies & TV', false, ['Sci-Fi Movies', 'Horror Movies', 'Documentaries', 'Sitcoms', 'Crime Series', 'Film Festivals', 'Animation', 'Reality TV', 'Superhero Movies', 'Classic Cinema']],
  ['Gaming', false, ['Esports', 'RPG Games', 'Retro Gaming', 'Game Streaming', 'Strategy Games', 'Shooters', 'Indie Games', 'Mobile Games', 'Speedrunning', 'Board Games']],
  ['Technology', false, ['Smartphones', 'Artificial Intelligence', 'Programming', 'Gadgets', 'Open Source', 'Cybersecurity', 'Robotics', 'Virtual Reality', 'Startups', 'Cloud Computing']],
  ['Science', false, ['Astronomy', 'Physics', 'Biology', 'Chemistry', 'Space Exploration', 'Climate Science', 'Neuroscience', 'Mathematics', 'Genetics', 'Paleontology']],
  ['Travel', false, ['Backpacking', 'Road Trips', 'Luxury Travel', 'City Breaks', 'Beach Holidays', 'Van Life', 'Cruises', 'Travel Hacks', 'Solo Travel', 'Island Hopping']],
  ['Food & Drink', false, ['Baking', 'Vegan Food', 'Street Food', 'Coffee', 'Wine', 'Craft Beer', 'BBQ', 'Sushi', 'Healthy Recipes', 'Fine Dining']],
  ['Fashion', false, ['Streetwear', 'Sneakers', 'Vintage Fashion', 'Luxury Brands', 'Sustainable Fashion', 'Menswear', 'Haute Couture', 'Jewelry', 'Watches', 'Thrifting']],
  ['Beauty', false, ['Makeup', 'Skincare', 'Hair Styling', 'Nail Art', 'Fragrances', 'Barbering', 'Natural Beauty', 'Tattoos', 'Cosmetics Reviews', 'Spa']],
  ['Fitness', false, ['Bodybuilding', 'Yoga', 'CrossFit', 'Home Workouts', 'Pilates', 'Calisthenics', 'Marathon Training', 'Powerlifting', 'Steroids|rf-drugs', 'Stretching']],
  ['Health', false, ['Nutrition', 'Mental Health', 'Meditation', 'Sleep', 'Running Injuries', 'Dieting', 'Alternative Medicine', 'Wellness', 'First Aid', 'Women\'s Health']],
  ['Parenting', false, ['Baby Care', 'Toddlers', 'Homeschooling', 'Family Travel', 'Pregnancy', 'Teen Parenting', 'Kids Crafts', 'Single Parenting', 'Kids Books', 'Family Recipes']],
  ['Pets', false, ['Dogs', 'Cats', 'Aquariums', 'Horses', 'Birds', 'Reptiles', 'Pet Training', 'Animal Rescue', 'Dog Shows', 'Pet Grooming']],
  ['Cars', false, ['Classic Cars', 'Electric Cars', 'Motorcycles', 'Car Tuning', 'Rally', 'Off-Roading', 'Supercars', 'Car Reviews', 'Street Racing|rf-violence', 'Trucks']],
  ['Home & Garden', false, ['Interior Design', 'Gardening', 'Houseplants', 'Home Improvement', 'Tiny Houses', 'Minimalism', 'Cleaning Hacks', 'Urban Farming', 'Furniture', 'Real Estate']],
  ['Art & Design', false, ['Painting', 'Street Art', 'Graphic Design', 'Sculpture', 'Illustration', 'Calligraphy', 'Modern Art', 'Ceramics', 'Typography', 'Museums']],
  ['Photography', false, ['Portrait Photography', 'Landscape Photography', 'Street Photography', 'Film Photography', 'Drones', 'Wildlife Photography', 'Photo Editing', 'Astrophotography', 'Wedding Photography', 'Cameras']],
  ['Books', false, ['Fantasy Books', 'Crime Novels', 'Poetry', 'Science Fiction', 'Biographies', 'Self-Help', 'Book Clubs', 'Comics', 'Romance Novels', 'Audiobooks']],
  ['Business', false, ['Entrepreneurship', 'Marketing', 'Leadership', 'E-commerce', 'Productivity', 'Small Business', 'Sales', 'Remote Work', 'Negotiation', 'Public Speaking']],
  ['Finance', false, ['Investing', 'Stock Market', 'Personal Finance', 'Real Estate Investing', 'Budgeting', 'Retirement Planning', 'Online Casinos|rf-gambling', 'Sports Betting|rf-gambling', 'Banking', 'Economics']],
  ['Crypto', false, ['Bitcoin', 'Ethereum', 'NFTs', 'DeFi', 'Crypto Trading', 'Blockchain', 'Altcoins', 'Web3', 'Crypto Mining', 'Memecoins']],
  ['Politics', false, ['Elections', 'Human Rights', 'Foreign Policy', 'Local Politics', 'Activism', 'Political Satire', 'Militias|rf-extremism', 'Environmental Policy', 'Debates', 'Radical Movements|rf-extremism']],
  ['News', false, ['World News', 'Breaking News', 'Tech News', 'Business News', 'Local News', 'Sports News', 'Investigative Journalism', 'Podcasts', 'Weather', 'Fact Checking']],
  ['Education', false, ['Online Courses', 'Language Learning', 'Study Tips', 'University Life', 'Teaching', 'Coding Bootcamps', 'History Lessons', 'Math Tutoring', 'Scholarships', 'Exam Prep']],
  ['Humor', false, ['Memes', 'Stand-up Comedy', 'Pranks', 'Satire', 'Funny Animals', 'Sketch Comedy', 'Puns', 'Dark Humor|rf-hate', 'Comedy Podcasts', 'Parodies']],
  ['Nature', false, ['Wildlife', 'Oceans', 'Forests', 'Birdwatching', 'National Parks', 'Conservation', 'Volcanoes', 'Weather Phenomena', 'Insects', 'Mountains']],
  ['Outdoors', false, ['Hiking', 'Camping', 'Rock Climbing', 'Fishing', 'Hunting', 'Surfing', 'Skiing', 'Kayaking', 'Mountain Biking', 'Survival Skills']],
  ['DIY & Crafts', false, ['Woodworking', 'Knitting', 'Sewing', 'Upcycling', '3D Printing', 'Electronics DIY', 'Jewelry Making', 'Candle Making', 'Scrapbooking', 'Leathercraft']],
  ['Religion', false, ['Christianity', 'Islam', 'Buddhism', 'Judaism', 'Hinduism', 'Spirituality', 'Astrology', 'Theology', 'Pilgrimages', 'Religious Music']],
  ['History', false, ['Ancient History', 'World War II', 'Medieval History', 'Archaeology', 'Military History', 'Royal Families', 'Genealogy', 'Historical Reenactment', 'Cold War', 'Ancient Egypt']],
  ['Celebrities', false, ['Hollywood', 'Celebrity Gossip', 'Influencers', 'Red Carpet', 'Royal News', 'Pop Stars', 'Athletes', 'Reality Stars', 'Fan Clubs', 'Paparazzi']],
  ['Dance', false, ['Ballet', 'Hip Hop Dance', 'Salsa', 'Tango', 'Contemporary Dance', 'Breakdance', 'Dance Challenges', 'Ballroom', 'Folk Dance', 'Pole Dance|rf-adult']],
  ['Anime & Comics', false, ['Anime', 'Manga', 'Cosplay', 'Marvel', 'DC Comics', 'Webcomics', 'Studio Ghibli', 'Mecha', 'Graphic Novels', 'Hentai|rf-adult']],
  ['Architecture', false, ['Modern Architecture', 'Gothic Architecture', 'Skyscrapers', 'Urban Planning', 'Sustainable Building', 'Bridges', 'Brutalism', 'Historic Buildings', 'Landscape Architecture', 'Interior Architecture']],
  ['Careers', false, ['Job Hunting', 'Resume Tips', 'Networking', 'Freelancing', 'Career Change', 'Internships', 'Workplace Culture', 'Salary Negotiation', 'Side Hustles', 'Personal Branding']],
  ['Trending', true, ['Viral Videos', 'Challenges', 'Giveaways', 'Life Hacks', 'Unboxing', 'ASMR', 'Party Drugs|rf-drugs', 'Trending Sounds', 'Reaction Videos', 'Livestreams']],
  ['Local', true, ['Local Events', 'Neighborhood Groups', 'Farmers Markets', 'City Guides', 'Local Restaurants', 'Community Sports', 'Volunteering', 'Local Music', 'Flea Markets', 'Local Shops']],
  ['Lifestyle', true, ['Daily Vlogs', 'Motivation', 'Luxury Lifestyle', 'Self Care', 'Morning Routines', 'Relationships', 'Weddings', 'Nightlife', 'Hate Pages|rf-hate', 'Digital Nomads']],
  ['Other', true, ['Quizzes', 'Horoscopes', 'Conspiracy Theories', 'Collectibles', 'Lottery', 'Puzzles', 'True Crime', 'Paranormal', 'Urban Legends', 'Trivia']]
]

export const FIRST_NAMES = [
  'Emma', 'Liam', 'Olivia', 'Noah', 'Ava', 'Elijah', 'Sophia', 'Lucas', 'Mia', 'Mateo', 'Isabella', 'Leo',
  'Amelia', 'Ethan', 'Harper', 'James', 'Evelyn', 'Aiden', 'Luna', 'Oliver', 'Chloe', 'Daniel', 'Zoe', 'Samuel',
  'Nora', 'Henry', 'Lily', 'Jack', 'Hannah', 'Owen', 'Aria', 'Wyatt', 'Layla', 'Julian', 'Ella', 'Gabriel',
  'Maya', 'Adam', 'Sara', 'David', 'Anna', 'Yusuf', 'Fatima', 'Omar', 'Aisha', 'Ivan', 'Olga', 'Marco',
  'Giulia', 'Pierre', 'Camille', 'Hans', 'Lena', 'Kenji', 'Yuki', 'Wei', 'Mei', 'Raj', 'Priya', 'Diego'
]
export const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
  'Hernandez', 'Lopez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee',
  'Thompson', 'White', 'Harris', 'Clark', 'Lewis', 'Walker', 'Young', 'Allen', 'King', 'Wright',
  'Scott', 'Green', 'Baker', 'Adams', 'Nelson', 'Hill', 'Campbell', 'Mitchell', 'Roberts', 'Carter',
  'Novak', 'Kowalski', 'Petrov', 'Rossi', 'Dubois', 'Schmidt', 'Tanaka', 'Sato', 'Chen', 'Wang',
  'Patel', 'Singh', 'Kim', 'Park', 'Silva', 'Santos', 'Costa', 'Jensen', 'Larsen', 'Nakamura'
]
export const ACCOUNT_STYLES: [string, string][] = [
  ['{}daily', '{} Daily'], ['{}_hub', '{} Hub'], ['the{}', 'The {}'], ['{}.world', '{} World'],
  ['{}fans', '{} Fans'], ['{}.news', '{} News'], ['i.love.{}', 'I Love {}'], ['{}club', '{} Club'],
  ['{}_official', '{} Official'], ['{}insider', '{} Insider'], ['all.about.{}', 'All About {}'], ['{}zone', '{} Zone']
]
export const LINKS: Record<Source, (u: string) => string> = {
  ig: (u) => `https://www.instagram.com/${u}/`,
  fb: (u) => `https://www.facebook.com/${u}`,
  tt: (u) => `https://www.tiktok.com/@${u}`,
  tw: (u) => `https://x.com/${u}`,
  li: (u) => `https://www.linkedin.com/in/${u}`
}
